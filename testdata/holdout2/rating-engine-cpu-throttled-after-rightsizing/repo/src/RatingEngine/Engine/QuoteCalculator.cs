using System.Diagnostics;
using AlderFinch.Rating.Factors;
using AlderFinch.Rating.Model;

namespace AlderFinch.Rating.Engine;

/// <summary>
/// Prices every cover option of a motor quote. Each option runs the full
/// factor pipeline (~40 rating factors over the vehicle, driver and postcode
/// tables), so a quote with 6 options costs ~100 ms of CPU.
/// </summary>
public sealed class QuoteCalculator(IFactorPipeline pipeline, IRateTables tables, ILogger<QuoteCalculator> log)
{
    private static readonly ActivitySource Source = new("AlderFinch.Rating");

    public async Task<QuoteResult> CalculateAsync(QuoteRequest request, CancellationToken ct)
    {
        using var activity = Source.StartActivity("Rating.Calculate");
        activity?.SetTag("rating.cover_options", request.CoverOptions.Count);

        var tablesSnapshot = await tables.SnapshotAsync(request.Postcode, ct);
        var priced = new PricedOption[request.CoverOptions.Count];
        await Parallel.ForEachAsync(
            request.CoverOptions.Select((option, i) => (option, i)),
            new ParallelOptions { CancellationToken = ct, MaxDegreeOfParallelism = Environment.ProcessorCount },
            (item, _) =>
            {
                priced[item.i] = pipeline.Price(item.option, request.Driver, request.Vehicle, tablesSnapshot);
                return ValueTask.CompletedTask;
            });

        log.LogDebug("Quote {QuoteId} priced {Options} options", request.QuoteId, priced.Length);
        return new QuoteResult(request.QuoteId, priced, DateTimeOffset.UtcNow.AddDays(30));
    }
}
