using System.Text.Json;
using Meridale.StudyIndexer.Dicom;
using Meridale.StudyIndexer.Index;
using Meridale.StudyIndexer.Model;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Meridale.StudyIndexer.Worker;

public sealed class StudyReceivedConsumer
{
    private readonly StudyMetadataLoader _loader;
    private readonly IndexWriter _writer;
    private readonly IChannel _channel;
    private readonly ILogger<StudyReceivedConsumer> _log;

    public StudyReceivedConsumer(StudyMetadataLoader loader, IndexWriter writer, IChannel channel, ILogger<StudyReceivedConsumer> log)
    {
        _loader = loader;
        _writer = writer;
        _channel = channel;
        _log = log;
    }

    public async Task OnMessageAsync(object sender, BasicDeliverEventArgs ea)
    {
        var message = JsonSerializer.Deserialize<StudyReceived>(ea.Body.Span)!;
        try
        {
            await HandleAsync(message, CancellationToken.None);
            await _channel.BasicAckAsync(ea.DeliveryTag, multiple: false);
        }
        catch (Exception ex)
        {
            var redelivered = ea.Redelivered;
            _log.LogError(ex, "Indexing failed for study {Study} ({Modality}, {Instances} instances), redelivered={Redelivered}",
                message.StudyInstanceUid, message.Modality, message.InstanceCount, redelivered);
            // First failure: requeue once. Second: dead-letter to studies.received.dlq for manual replay.
            await _channel.BasicNackAsync(ea.DeliveryTag, multiple: false, requeue: !redelivered);
        }
    }

    private async Task HandleAsync(StudyReceived message, CancellationToken ct)
    {
        var study = new StudyRef(message.StudyInstanceUid, message.Modality, message.InstanceCount);
        var index = await _loader.LoadAsync(study, ct);
        await _writer.UpsertAsync(index, ct);
        _log.LogInformation("Indexed study {Study}", message.StudyInstanceUid);
    }
}
