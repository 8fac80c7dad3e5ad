using Elastic.Clients.Elasticsearch;
using Elastic.Clients.Elasticsearch.Core.Bulk;
using Microsoft.Extensions.Logging;

namespace Mercato.CatalogIndexer;

/// <summary>
/// Sends product changes to the products alias in batches of 500. Item-level
/// failures are logged and skipped so one bad product cannot block a partition;
/// the nightly reconciler re-sends whatever is missing from the index.
/// </summary>
public sealed class BulkIndexer(ElasticsearchClient es, ILogger<BulkIndexer> logger)
{
    public async Task<BulkResult> IndexAsync(IReadOnlyList<ProductDocument> batch, CancellationToken ct)
    {
        var started = DateTime.UtcNow;
        var response = await es.BulkAsync(b => b
            .Index("products")
            .IndexMany(batch, (op, doc) => op.Id(doc.ProductId)), ct);

        var failed = 0;
        foreach (var item in response.ItemsWithErrors)
        {
            failed++;
            var doc = batch.First(d => d.ProductId == item.Id);
            logger.LogWarning("Bulk item failed for product {ProductId} (seller {SellerId}): {ErrorType}: {Reason}",
                item.Id, doc.SellerId, item.Error?.Type, item.Error?.Reason);
        }
        logger.LogInformation("Bulk request indexed {Ok}/{Total} items in {ElapsedMs}ms",
            batch.Count - failed, batch.Count, (int)(DateTime.UtcNow - started).TotalMilliseconds);
        return new BulkResult(batch.Count - failed, failed);
    }
}
