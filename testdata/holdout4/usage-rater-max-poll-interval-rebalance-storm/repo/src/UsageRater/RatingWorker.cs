using Confluent.Kafka;
using Microsoft.Extensions.Options;

namespace Tidewave.UsageRater;

public sealed class RatingWorker(
    IConsumer<string, CdrRecord> consumer,
    IRatingStore store,
    IOptions<RatingOptions> options,
    ILogger<RatingWorker> log) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        consumer.Subscribe(options.Value.Topic);
        var batch = new Batch(options.Value.BatchSize);
        while (!stoppingToken.IsCancellationRequested)
        {
            var result = consumer.Consume(TimeSpan.FromMilliseconds(options.Value.BatchLingerMs));
            if (result is not null)
            {
                batch.Add(result);
            }
            if (batch.Count == 0 || (!batch.IsFull && !batch.LingerElapsed))
            {
                continue;
            }
            var sw = System.Diagnostics.Stopwatch.StartNew();
            var rated = await store.RateAsync(batch.Records, stoppingToken);
            log.LogInformation("Rated batch of {Count} records ({Duplicates} duplicates skipped) from {Partitions} partitions in {ElapsedMs} ms",
                batch.Count, batch.Count - rated, batch.PartitionCount, sw.ElapsedMilliseconds);
            CommitBatch(batch);
            batch = new Batch(options.Value.BatchSize);
        }
    }

    private void CommitBatch(Batch batch)
    {
        try
        {
            consumer.Commit(batch.Offsets());
        }
        catch (KafkaException e)
        {
            log.LogError(e, "Commit failed for batch ending at {Offsets}", batch.OffsetsSummary());
        }
    }
}
