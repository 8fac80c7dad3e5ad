namespace Tidewave.UsageRater;

public sealed class KafkaOptions
{
    public string BootstrapServers { get; set; } = "";
    public string GroupId { get; set; } = "usage-rater";
    public int MaxPollIntervalMs { get; set; } = 300_000;
    public int SessionTimeoutMs { get; set; } = 45_000;
    public string AutoOffsetReset { get; set; } = "earliest";
}
