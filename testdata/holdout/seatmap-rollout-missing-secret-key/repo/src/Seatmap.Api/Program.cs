using Seatmap.Api.Holds;
using Seatmap.Api.Layouts;

var builder = WebApplication.CreateBuilder(args);

var seatsDb = builder.Configuration.GetConnectionString("Seats")
    ?? throw new InvalidOperationException("ConnectionStrings:Seats is not configured");
builder.Services.AddNpgsqlDataSource(seatsDb);
builder.Services.AddStackExchangeRedisCache(o => o.Configuration = builder.Configuration["Redis:Configuration"]);
builder.Services.AddSingleton<LayoutCache>();
builder.Services.AddScoped<HoldService>();
builder.Services.AddHealthChecks().AddNpgSql(seatsDb, tags: ["ready"]);

var app = builder.Build();
app.MapHealthChecks("/health/ready", new() { Predicate = c => c.Tags.Contains("ready") });
app.MapHealthChecks("/health/live", new() { Predicate = _ => false });
app.MapGet("/v1/events/{eventId}/seatmap", (string eventId, LayoutCache layouts) => layouts.GetAsync(eventId));
app.MapPost("/v1/events/{eventId}/holds", HoldEndpoints.CreateHold);
app.Run();
