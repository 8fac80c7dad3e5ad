using Confluent.Kafka;
using Greengrocer.Fulfilment.Picklists.Model;

namespace Greengrocer.Fulfilment.Picklists;

public sealed class PicklistConsumer(IConsumer<string, OrderPlaced> consumer, PicklistBuilder builder,
    IPicklistPublisher publisher, ILogger<PicklistConsumer> log) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken ct)
    {
        consumer.Subscribe("orders.placed");
        while (!ct.IsCancellationRequested)
        {
            var result = consumer.Consume(ct);
            var order = result.Message.Value;
            // Group lines by aisle so pickers walk each aisle once; bulk orders are split per 120 lines.
            var picklists = builder.Build(order, maxLinesPerList: 120);
            foreach (var list in picklists)
            {
                await publisher.PublishAsync(list, ct);
            }
            consumer.StoreOffset(result);
            log.LogInformation("Picklists created for order {OrderId}: {Lists} list(s), {Lines} lines, store {StoreId}",
                order.OrderId, picklists.Count, order.Lines.Count, order.StoreId);
        }
    }
}
