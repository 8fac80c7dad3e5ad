using System.Net.Http.Json;
using Microsoft.Extensions.Caching.Memory;

namespace Staylio.RateShop.Loyalty;

public interface ILoyaltyClient
{
    Task<MemberTier> GetTierAsync(string memberId, CancellationToken ct);
}

public sealed class LoyaltyClient : ILoyaltyClient
{
    private static readonly TimeSpan CacheFor = TimeSpan.FromMinutes(5);

    private readonly HttpClient _http;
    private readonly IMemoryCache _cache;

    public LoyaltyClient(HttpClient http, IMemoryCache cache)
    {
        _http = http;   // BaseAddress http://loyalty-api.loyalty.svc.cluster.local, Timeout 10 s (Program.cs)
        _cache = cache;
    }

    public async Task<MemberTier> GetTierAsync(string memberId, CancellationToken ct)
    {
        if (_cache.TryGetValue(memberId, out MemberTier? hit) && hit is not null)
        {
            return hit;
        }

        var tier = await _http.GetFromJsonAsync<MemberTier>($"/v1/members/{memberId}/tier", ct)
                   ?? MemberTier.None;
        _cache.Set(memberId, tier, CacheFor);
        return tier;
    }
}
