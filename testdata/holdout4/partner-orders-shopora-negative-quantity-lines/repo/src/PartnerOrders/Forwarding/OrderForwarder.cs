using System.Diagnostics;

namespace Lumina.PartnerOrders.Forwarding;

public sealed class OrderForwarder(
    IPartnerOrderStore store,
    IMapperRegistry mappers,
    IWarehouseClient warehouse,
    ILogger<OrderForwarder> log) : BackgroundService
{
    private static readonly ActivitySource Source = new("Lumina.PartnerOrders.Forwarding");

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        while (!stoppingToken.IsCancellationRequested)
        {
            foreach (var order in await store.DueForForwardingAsync(50, stoppingToken))
            {
                await ForwardAsync(order, stoppingToken);
            }
            await Task.Delay(TimeSpan.FromSeconds(10), stoppingToken);
        }
    }

    private async Task ForwardAsync(PartnerOrder order, CancellationToken ct)
    {
        using var activity = Source.StartActivity("OrderForwarder.Forward");
        activity?.SetTag("partner", order.Partner);
        activity?.SetTag("partner.order_id", order.ExternalId);
        try
        {
            var request = mappers.For(order.Partner).Map(order.Payload);
            await warehouse.CreateFulfilmentRequestAsync(request, ct);
            await store.MarkForwardedAsync(order.Id, ct);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            var retryAt = await store.ScheduleRetryAsync(order.Id, e, ct);
            activity?.AddException(e);
            activity?.SetStatus(ActivityStatusCode.Error, e.Message);
            log.LogError(e, "Forwarding order {OrderId} from {Partner} failed (attempt {Attempt}), next retry at {RetryAt:HH:mm:ss}",
                order.ExternalId, order.Partner, order.Attempts + 1, retryAt);
        }
    }
}
