using Microsoft.AspNetCore.Mvc;
using StackExchange.Redis;

namespace Staylio.RateShop.Rates;

[ApiController]
[Route("v2/rates")]
public sealed class RatesController : ControllerBase
{
    private readonly ISupplierAggregator _suppliers;
    private readonly RoomRateMapper _mapper;
    private readonly IDatabase _cache;
    private readonly ILogger<RatesController> _log;

    public RatesController(ISupplierAggregator suppliers, RoomRateMapper mapper, IConnectionMultiplexer redis, ILogger<RatesController> log)
    {
        _suppliers = suppliers;
        _mapper = mapper;
        _cache = redis.GetDatabase();
        _log = log;
    }

    [HttpPost("search")]
    public async Task<ActionResult<SearchResponse>> Search([FromBody] SearchRequest request, CancellationToken ct)
    {
        var ctx = SearchContext.From(request, User, ct);
        var key = $"rates:{request.Destination}:{request.CheckIn:yyyy-MM-dd}:{request.Nights}";

        IReadOnlyList<RoomRate> rates;
        var cached = await _cache.StringGetAsync(key);
        if (cached.HasValue)
        {
            rates = RoomRate.Deserialize(cached!);
        }
        else
        {
            rates = await _suppliers.FetchAsync(request, ct);
            await _cache.StringSetAsync(key, RoomRate.Serialize(rates), TimeSpan.FromMinutes(3));
        }

        var items = rates
            .Where(r => r.Occupancy >= request.Guests)
            .Select(r => _mapper.Map(r, ctx))
            .OrderBy(r => r.TotalPrice)
            .ToList();

        _log.LogInformation("search {Destination} {CheckIn} returned {Count} rates", request.Destination, request.CheckIn, items.Count);
        return new SearchResponse(items, rates.Count);
    }
}
