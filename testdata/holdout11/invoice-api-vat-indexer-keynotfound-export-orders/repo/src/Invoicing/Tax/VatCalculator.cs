using Bergwerk.Invoicing.Domain;

namespace Bergwerk.Invoicing.Tax;

/// <summary>
/// Computes the VAT lines of an invoice. Rates come from tax.vat_rates
/// (one row per EU member state, maintained by finance).
/// </summary>
public sealed class VatCalculator
{
    private readonly IReadOnlyDictionary<string, decimal> _rates;
    private readonly ILogger<VatCalculator> _log;

    public VatCalculator(IVatRateProvider provider, ILogger<VatCalculator> log)
    {
        _rates = provider.Load();
        _log = log;
    }

    public VatBreakdown Calculate(Order order)
    {
        var country = order.ShipTo.CountryCode.ToUpperInvariant();
        if (order.Customer.VatId is { Length: > 0 } && country != Company.HomeCountry)
        {
            // Intra-community B2B supply: reverse charge, no VAT on our invoice.
            return VatBreakdown.ReverseCharge(order.NetTotal, order.Customer.VatId);
        }

        var rate = _rates[country];
        var lines = order.Lines
            .Select(l => new VatLine(l.Sku, l.NetAmount, rate, Math.Round(l.NetAmount * rate, 2, MidpointRounding.AwayFromZero)))
            .ToList();
        return new VatBreakdown(lines, rate);
    }
}
