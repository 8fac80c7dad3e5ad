namespace Parcelio.WebhookDispatcher.Delivery;

public sealed class DispatchLoop(IEventQueue queue, WebhookSender sender, ILogger<DispatchLoop> log) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken ct)
    {
        await Parallel.ForEachAsync(queue.ReadAllAsync(ct), new ParallelOptions { MaxDegreeOfParallelism = 16, CancellationToken = ct },
            async (item, token) =>
            {
                var result = await sender.Deliver(item.Subscription, item.Event, token);
                await queue.CompleteAsync(item, result, token);
            });
    }
}
