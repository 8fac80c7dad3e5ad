package payload

import (
	"encoding/json"
	"fmt"
	"time"
)

// V4 is the payload of firmware 4.x loggers (reefer containers and the new
// PS-40 truck units). 4.2 adds door_open; older 4.x units omit it.
type V4 struct {
	Device   string   `json:"dev"`
	TS       int64    `json:"ts"`
	TempC    *float32 `json:"t"`
	Humidity *float32 `json:"h"`
	DoorOpen *bool    `json:"door_open,omitempty"`
	Battery  *uint16  `json:"bat"`
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
	FW       string   `json:"fw"`
}

func DecodeV4(raw []byte) (*Reading, error) {
	var p V4
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("decode v4: %w", err)
	}
	r := &Reading{
		DeviceID: p.Device,
		TS:       time.UnixMilli(p.TS).UTC(),
		TempC:    p.TempC,
		Humidity: p.Humidity,
		Battery:  p.Battery,
		Lat:      p.Lat,
		Lon:      p.Lon,
		FW:       p.FW,
	}
	if p.DoorOpen != nil {
		v := uint8(0)
		if *p.DoorOpen {
			v = 1
		}
		r.DoorOpen = &v
	}
	return r, nil
}
