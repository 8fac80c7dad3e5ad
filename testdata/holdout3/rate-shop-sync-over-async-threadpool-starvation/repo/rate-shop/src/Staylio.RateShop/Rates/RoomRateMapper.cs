using Staylio.RateShop.Loyalty;

namespace Staylio.RateShop.Rates;

/// <summary>
/// Turns supplier room rates into the DTOs the search page renders.
/// Signed-in members see their tier discount applied to every rate (LOY-88).
/// </summary>
public sealed class RoomRateMapper
{
    private readonly ICurrencyConverter _fx;
    private readonly ILoyaltyClient _loyalty;

    public RoomRateMapper(ICurrencyConverter fx, ILoyaltyClient loyalty)
    {
        _fx = fx;
        _loyalty = loyalty;
    }

    public RoomRateDto Map(RoomRate rate, SearchContext ctx)
    {
        var nightly = _fx.Convert(rate.NightlyPrice, ctx.Currency);

        if (ctx.MemberId is not null)
        {
            // Tier lookups are cached by LoyaltyClient for 5 minutes, so this is cheap.
            var tier = _loyalty.GetTierAsync(ctx.MemberId, ctx.CancellationToken).Result;
            nightly = tier.ApplyDiscount(nightly, rate.Supplier);
        }

        return new RoomRateDto(
            rate.HotelId,
            rate.RoomCode,
            rate.BoardType,
            nightly,
            nightly * ctx.Nights,
            rate.Refundable,
            rate.Supplier);
    }
}
