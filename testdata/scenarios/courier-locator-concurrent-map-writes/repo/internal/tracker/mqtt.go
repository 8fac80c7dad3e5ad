package tracker

import (
	"encoding/json"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

func Subscribe(c mqtt.Client, s *Store) mqtt.Token {
	return c.Subscribe("couriers/+/location", 0, func(_ mqtt.Client, m mqtt.Message) {
		var p Ping
		if err := json.Unmarshal(m.Payload(), &p); err != nil {
			return
		}
		s.Record(p)
	})
}
