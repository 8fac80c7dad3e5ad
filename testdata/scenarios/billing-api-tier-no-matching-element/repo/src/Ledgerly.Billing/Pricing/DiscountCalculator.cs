using System;
using System.Linq;
using Ledgerly.Billing.Domain;

namespace Ledgerly.Billing.Pricing;

/// <summary>
/// Seat-tier discounts. Tier tables come from the plan catalogue; a seat
/// count maps onto the tier whose [MinSeats, MaxSeats] range contains it.
/// </summary>
public sealed class DiscountCalculator
{
    public decimal DiscountFor(Plan plan, int seats)
    {
        if (plan.Tiers.Count == 0)
        {
            return 0m;
        }
        var tier = TierFor(plan, seats);
        return tier.DiscountPercent / 100m;
    }

    internal static PriceTier TierFor(Plan plan, int seats)
    {
        return plan.Tiers
            .OrderBy(t => t.MinSeats)
            .First(t => t.MinSeats <= seats && seats <= t.MaxSeats);
    }
}
