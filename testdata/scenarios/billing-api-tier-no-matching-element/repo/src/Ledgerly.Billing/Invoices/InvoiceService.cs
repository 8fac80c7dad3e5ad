using System;
using System.Threading;
using System.Threading.Tasks;
using Ledgerly.Billing.Domain;
using Ledgerly.Billing.Pricing;
using Microsoft.Extensions.Logging;

namespace Ledgerly.Billing.Invoices;

public sealed class InvoiceService
{
    private readonly IWorkspaceRepository _workspaces;
    private readonly IPlanCatalogue _plans;
    private readonly DiscountCalculator _discounts;
    private readonly ILogger<InvoiceService> _log;

    public InvoiceService(IWorkspaceRepository workspaces, IPlanCatalogue plans, DiscountCalculator discounts,
        ILogger<InvoiceService> log)
    {
        _workspaces = workspaces;
        _plans = plans;
        _discounts = discounts;
        _log = log;
    }

    public async Task<InvoicePreview> PreviewAsync(Guid workspaceId, CancellationToken ct)
    {
        var ws = await _workspaces.GetAsync(workspaceId, ct) ?? throw new WorkspaceNotFoundException(workspaceId);
        var plan = await _plans.GetAsync(ws.PlanId, ct);
        var gross = plan.PricePerSeat * ws.Seats;
        var discount = _discounts.DiscountFor(plan, ws.Seats);
        var net = Math.Round(gross * (1 - discount), 2, MidpointRounding.ToEven);
        _log.LogInformation("Invoice preview for {WorkspaceId}: {Seats} seats, net {Net} {Currency}",
            workspaceId, ws.Seats, net, plan.Currency);
        return new InvoicePreview(workspaceId, ws.Seats, gross, discount, net, plan.Currency);
    }
}
