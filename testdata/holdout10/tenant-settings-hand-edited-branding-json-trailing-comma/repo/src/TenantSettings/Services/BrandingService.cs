using System.Text.Json;
using Microsoft.Extensions.Caching.Memory;
using TenantSettings.Data;

namespace TenantSettings.Services;

public sealed class BrandingService(SettingsDb db, IMemoryCache cache, ILogger<BrandingService> log)
{
    private static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web);

    public async Task<Branding> GetAsync(Guid tenantId, CancellationToken ct)
    {
        return await cache.GetOrCreateAsync($"branding:{tenantId}", async entry =>
        {
            entry.AbsoluteExpirationRelativeToNow = TimeSpan.FromMinutes(10);
            var row = await db.TenantSettings.FindAsync([tenantId], ct)
                      ?? throw new TenantNotFoundException(tenantId);
            return JsonSerializer.Deserialize<Branding>(row.BrandingJson, Options)!;
        }) ?? Branding.Default;
    }
}
