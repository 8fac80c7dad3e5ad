using Lumina.PartnerOrders.Domain;

namespace Lumina.PartnerOrders.Shopora;

public sealed class ShoporaOrderMapper : IPartnerOrderMapper<ShoporaOrder>
{
    public string Partner => "shopora";

    public FulfilmentRequest Map(ShoporaOrder order)
    {
        return new FulfilmentRequest
        {
            ExternalOrderId = order.Id,
            Partner = Partner,
            ShipTo = MapAddress(order.Shipping),
            Lines = order.Lines.Select(MapLine).ToList(),
            RequestedService = order.ShippingMethod == "express" ? ServiceLevel.NextDay : ServiceLevel.Standard,
        };
    }

    private static FulfilmentLine MapLine(ShoporaLine line) => new()
    {
        Sku = line.MerchantSku,
        Quantity = checked((uint)line.Quantity),
        UnitPriceMinor = line.UnitPrice.AmountMinor,
        Currency = line.UnitPrice.Currency,
    };

    private static Address MapAddress(ShoporaAddress a) => new(a.Name, a.Street, a.PostalCode, a.City, a.CountryCode);
}
