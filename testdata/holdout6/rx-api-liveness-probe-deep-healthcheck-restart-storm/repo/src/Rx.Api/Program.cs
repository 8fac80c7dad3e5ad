using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Rx.Api.Formulary;

var builder = WebApplication.CreateBuilder(args);

builder.Services.AddHealthChecks()
    .AddRedis(builder.Configuration.GetConnectionString("Cache")!, name: "redis", tags: new[] { "ready" })
    .AddNpgSql(builder.Configuration.GetConnectionString("Rx")!, name: "postgres", tags: new[] { "ready" })
    .AddCheck<FormularyLoadedCheck>("formulary", tags: new[] { "ready" });

builder.Services.AddSingleton<FormularyCache>();
builder.Services.AddHostedService<FormularyWarmup>();

var app = builder.Build();

// /healthz runs every registered check; /healthz/live only proves the process answers.
app.MapHealthChecks("/healthz");
app.MapHealthChecks("/healthz/live", new HealthCheckOptions { Predicate = _ => false });

app.MapRxEndpoints();
app.Run();
