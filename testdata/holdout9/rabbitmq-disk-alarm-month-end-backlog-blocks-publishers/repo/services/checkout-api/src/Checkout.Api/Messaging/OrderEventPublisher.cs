using System.Text.Json;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Checkout.Api.Messaging;

public sealed class OrderEventPublisher : IAsyncDisposable
{
    private readonly IChannel _channel;
    private readonly ILogger<OrderEventPublisher> _log;

    public OrderEventPublisher(IConnection connection, ILogger<OrderEventPublisher> log)
    {
        _log = log;
        connection.ConnectionBlockedAsync += (_, e) =>
        {
            _log.LogWarning("RabbitMQ connection blocked by broker: {Reason}", e.Reason);
            return Task.CompletedTask;
        };
        connection.ConnectionUnblockedAsync += (_, _) =>
        {
            _log.LogInformation("RabbitMQ connection unblocked");
            return Task.CompletedTask;
        };
        _channel = connection.CreateChannelAsync(new CreateChannelOptions(
            publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true)).GetAwaiter().GetResult();
    }

    public async Task PublishOrderPlacedAsync(OrderPlaced evt, CancellationToken ct)
    {
        var body = JsonSerializer.SerializeToUtf8Bytes(evt);
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(ct);
        cts.CancelAfter(TimeSpan.FromSeconds(5));
        await _channel.BasicPublishAsync("orders", "order.placed", mandatory: true,
            new BasicProperties { Persistent = true, MessageId = evt.OrderId }, body, cts.Token);
    }

    public ValueTask DisposeAsync() => _channel.DisposeAsync();
}
