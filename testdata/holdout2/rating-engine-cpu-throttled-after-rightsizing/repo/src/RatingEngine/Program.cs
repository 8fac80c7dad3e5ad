using AlderFinch.Rating.Engine;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

var builder = WebApplication.CreateBuilder(args);
builder.Logging.AddJsonConsole(o => o.IncludeScopes = true);
builder.Logging.AddFilter("AlderFinch.Rating.Engine.QuoteCalculator", LogLevel.Debug);

builder.Services.AddRatingEngine(builder.Configuration);
builder.Services.AddOpenTelemetry()
    .WithTracing(t => t.AddAspNetCoreInstrumentation().AddHttpClientInstrumentation().AddNpgsql()
        .AddSource("AlderFinch.Rating").AddOtlpExporter())
    .WithMetrics(m => m.AddAspNetCoreInstrumentation().AddRuntimeInstrumentation().AddPrometheusExporter());

var app = builder.Build();
app.MapPrometheusScrapingEndpoint();
app.MapHealthChecks("/health/ready");
app.MapHealthChecks("/health/live");
app.MapPost("/v1/quotes", async (QuoteRequest request, QuoteCalculator calculator, CancellationToken ct) =>
    Results.Ok(await calculator.CalculateAsync(request, ct)));
app.Run();
