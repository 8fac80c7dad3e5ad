using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;
using StackExchange.Redis;
using Staylio.RateShop.Loyalty;
using Staylio.RateShop.Rates;

var builder = WebApplication.CreateBuilder(args);

builder.Logging.ClearProviders();
builder.Logging.AddJsonConsole(o => o.IncludeScopes = true);

builder.Services.AddControllers();
builder.Services.AddMemoryCache();
builder.Services.AddSingleton<IConnectionMultiplexer>(_ =>
    ConnectionMultiplexer.Connect(builder.Configuration.GetConnectionString("Redis")!));
builder.Services.AddSingleton<ICurrencyConverter, CurrencyConverter>();
builder.Services.AddScoped<ISupplierAggregator, SupplierAggregator>();
builder.Services.AddScoped<RoomRateMapper>();
builder.Services.AddHttpClient<ILoyaltyClient, LoyaltyClient>(c =>
{
    c.BaseAddress = new Uri(builder.Configuration["Loyalty:BaseUrl"]!);
    c.Timeout = TimeSpan.FromSeconds(10);
});

builder.Services.AddOpenTelemetry()
    .ConfigureResource(r => r.AddService("rate-shop-api"))
    .WithTracing(t => t.AddAspNetCoreInstrumentation().AddHttpClientInstrumentation().AddRedisInstrumentation().AddOtlpExporter())
    .WithMetrics(m => m.AddAspNetCoreInstrumentation().AddRuntimeInstrumentation().AddPrometheusExporter());

builder.Services.AddHealthChecks();

var app = builder.Build();
app.MapControllers();
app.MapHealthChecks("/healthz");
app.MapPrometheusScrapingEndpoint();
app.Run();
