using Google.Cloud.Storage.V1;
using Meridale.StudyIndexer.Dicom;
using Meridale.StudyIndexer.Index;
using Meridale.StudyIndexer.Worker;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

var builder = Host.CreateApplicationBuilder(args);

builder.Services.AddSingleton(StorageClient.Create());
builder.Services.AddSingleton<StudyMetadataLoader>();
builder.Services.AddSingleton<IndexWriter>();
builder.Services.AddRabbitMqConsumer<StudyReceivedConsumer>(builder.Configuration.GetSection("RabbitMq"));
builder.Services.AddOpenTelemetry()
    .WithTracing(t => t.AddSource("Meridale.StudyIndexer").AddNpgsql().AddOtlpExporter())
    .WithMetrics(m => m.AddRuntimeInstrumentation().AddProcessInstrumentation().AddPrometheusHttpListener(o => o.UriPrefixes = ["http://*:9464/"]));

var host = builder.Build();

var gc = GC.GetGCMemoryInfo();
host.Services.GetRequiredService<ILogger<Program>>().LogInformation(
    "Runtime {Runtime}, server GC {ServerGc}, GC total available memory {Available} bytes",
    System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription,
    System.Runtime.GCSettings.IsServerGC,
    gc.TotalAvailableMemoryBytes);

host.Run();
