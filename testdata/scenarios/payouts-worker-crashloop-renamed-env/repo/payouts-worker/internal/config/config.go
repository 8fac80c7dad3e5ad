package config

import (
	"fmt"
	"os"
	"strconv"
)

type Config struct {
	BankAPIURL string
	BatchSize  int
	Queue      string
}

func required(name string) (string, error) {
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("config: required env %s is empty", name)
	}
	return v, nil
}

func Load() (*Config, error) {
	url, err := required("PAYOUTS_BANK_API_URL")
	if err != nil {
		return nil, err
	}
	bs, _ := strconv.Atoi(os.Getenv("PAYOUTS_BATCH_SIZE"))
	if bs <= 0 {
		bs = 100
	}
	return &Config{BankAPIURL: url, BatchSize: bs, Queue: os.Getenv("PAYOUTS_QUEUE")}, nil
}
