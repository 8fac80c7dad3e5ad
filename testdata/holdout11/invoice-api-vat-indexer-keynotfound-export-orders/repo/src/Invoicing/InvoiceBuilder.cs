using Bergwerk.Invoicing.Domain;
using Bergwerk.Invoicing.Tax;

namespace Bergwerk.Invoicing;

public sealed class InvoiceBuilder(VatCalculator vat, IInvoiceNumberSequence numbers, TimeProvider clock)
{
    public async Task<Invoice> BuildAsync(Order order, CancellationToken ct)
    {
        if (order.Status is not (OrderStatus.Shipped or OrderStatus.Delivered))
        {
            throw new InvalidOperationException($"order {order.Id} is not shipped yet");
        }

        var number = order.InvoiceNumber ?? await numbers.NextAsync(ct);
        var issued = order.InvoicedAt ?? clock.GetUtcNow();
        var breakdown = vat.Calculate(order);
        return new Invoice(number, order, issued, breakdown);
    }
}
