CREATE TABLE IF NOT EXISTS telemetry.readings ON CLUSTER telemetry
(
    tenant_id   LowCardinality(String),
    device_id   String,
    ts          DateTime64(3, 'UTC'),
    received_at DateTime64(3, 'UTC'),
    temp_c      Nullable(Float32),
    humidity    Nullable(Float32),
    door_open   Nullable(UInt8),
    battery_mv  Nullable(UInt16),
    lat         Nullable(Float64),
    lon         Nullable(Float64),
    fw          LowCardinality(String)
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/readings', '{replica}')
PARTITION BY toYYYYMMDD(ts)
ORDER BY (tenant_id, device_id, ts)
TTL toDateTime(ts) + INTERVAL 400 DAY;
