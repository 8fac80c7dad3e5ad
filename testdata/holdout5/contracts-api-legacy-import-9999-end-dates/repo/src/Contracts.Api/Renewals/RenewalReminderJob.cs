using Contracts.Api.Data;
using Microsoft.EntityFrameworkCore;

namespace Contracts.Api.Renewals;

public sealed class RenewalReminderJob(ContractsDbContext db, RenewalCalculator calculator, IReminderSender sender, ILogger<RenewalReminderJob> log)
{
    public async Task<int> RunAsync(CancellationToken ct)
    {
        var today = DateTime.UtcNow.Date;
        var contracts = await db.Contracts.Where(c => c.Status == ContractStatus.Active).ToListAsync(ct);
        log.LogInformation("Renewal reminder run for {Count} active contracts", contracts.Count);
        var due = contracts
            .Select(c => calculator.Calculate(c, today))
            .Where(r => r.DaysUntilNoticeDeadline is 90 or 30 or 7)
            .ToList();
        foreach (var r in due)
        {
            await sender.SendAsync(r, ct);
        }
        log.LogInformation("Sent {Sent} renewal reminders", due.Count);
        return due.Count;
    }
}
