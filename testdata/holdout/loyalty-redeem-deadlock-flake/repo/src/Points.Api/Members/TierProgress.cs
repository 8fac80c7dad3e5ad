namespace Points.Api.Members;

public static class TierProgress
{
    public static readonly IReadOnlyList<(string Tier, int Threshold)> Tiers = [("Silver", 2_000), ("Gold", 10_000), ("Platinum", 40_000)];

    public static (string Next, int Remaining)? Next(int lifetimePoints)
    {
        foreach (var (tier, threshold) in Tiers)
        {
            if (lifetimePoints < threshold)
            {
                return (tier, threshold - lifetimePoints);
            }
        }
        return null;
    }
}
