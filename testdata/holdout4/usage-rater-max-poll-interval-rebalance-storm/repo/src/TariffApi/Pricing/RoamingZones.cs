namespace Tidewave.TariffApi.Pricing;

public static class RoamingZones
{
    public static readonly IReadOnlyDictionary<string, string> ByCountry = new Dictionary<string, string>
    {
        ["GB"] = "EU+", ["CH"] = "EU+", ["NO"] = "EU+", ["IS"] = "EU+", ["US"] = "WORLD1", ["CA"] = "WORLD1", ["TR"] = "WORLD2",
    };
}
