using Parcelio.WebhookDispatcher.Delivery;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpClient<WebhookSender>(c => c.Timeout = TimeSpan.FromSeconds(10));
builder.Services.AddSingleton<WebhookSender>();
builder.Services.AddHostedService<DispatchLoop>();
builder.Services.AddOpenTelemetry().WithTracing(t => t.AddAspNetCoreInstrumentation().AddHttpClientInstrumentation().AddOtlpExporter());
var app = builder.Build();
app.MapHealthChecks("/healthz");
app.Run();
