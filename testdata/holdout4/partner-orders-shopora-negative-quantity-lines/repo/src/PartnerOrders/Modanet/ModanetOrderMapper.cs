using Lumina.PartnerOrders.Domain;

namespace Lumina.PartnerOrders.Modanet;

public sealed class ModanetOrderMapper : IPartnerOrderMapper<ModanetOrder>
{
    public string Partner => "modanet";

    public FulfilmentRequest Map(ModanetOrder order) => new()
    {
        ExternalOrderId = order.OrderNumber,
        Partner = Partner,
        ShipTo = new Address(order.Recipient.FullName, order.Recipient.AddressLine1, order.Recipient.Zip, order.Recipient.Town, order.Recipient.Country),
        Lines = order.Items.Select(i => new FulfilmentLine
        {
            Sku = i.Ean,
            Quantity = (uint)i.Qty,
            UnitPriceMinor = (long)Math.Round(i.Price * 100m),
            Currency = order.Currency,
        }).ToList(),
        RequestedService = ServiceLevel.Standard,
    };
}
