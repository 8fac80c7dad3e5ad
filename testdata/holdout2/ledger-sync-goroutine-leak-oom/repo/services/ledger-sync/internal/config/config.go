package config

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

type Config struct {
	DatabaseURL   string
	FXGatewayURL  string
	LedgerAPIURL  string
	BatchSize     int
	SweepInterval time.Duration
	FXTimeout     time.Duration
}

func FromEnv() (Config, error) {
	c := Config{
		DatabaseURL:   os.Getenv("DATABASE_URL"),
		FXGatewayURL:  os.Getenv("FX_GATEWAY_URL"),
		LedgerAPIURL:  os.Getenv("LEDGER_API_URL"),
		BatchSize:     200,
		SweepInterval: 2 * time.Second,
		FXTimeout:     300 * time.Millisecond,
	}
	if v := os.Getenv("BATCH_SIZE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("BATCH_SIZE=%q: must be a positive integer", v)
		}
		c.BatchSize = n
	}
	for name, dst := range map[string]*time.Duration{"SWEEP_INTERVAL": &c.SweepInterval, "FX_TIMEOUT": &c.FXTimeout} {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return c, fmt.Errorf("%s=%q: %w", name, v, err)
			}
			*dst = d
		}
	}
	if c.DatabaseURL == "" || c.FXGatewayURL == "" || c.LedgerAPIURL == "" {
		return c, fmt.Errorf("DATABASE_URL, FX_GATEWAY_URL and LEDGER_API_URL are required")
	}
	return c, nil
}
