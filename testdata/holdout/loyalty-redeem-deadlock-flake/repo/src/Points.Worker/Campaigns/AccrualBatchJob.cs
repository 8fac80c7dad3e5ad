using Microsoft.EntityFrameworkCore;
using Points.Api.Data;

namespace Points.Worker.Campaigns;

/// <summary>
/// Every 15 minutes: credits campaign bonus points for qualifying purchases
/// and, for "buy X get reward Y" campaigns, reserves the reward unit.
/// </summary>
public sealed class AccrualBatchJob(PointsDbContext db, ILogger<AccrualBatchJob> logger)
{
    public async Task RunAsync(CancellationToken ct)
    {
        var pending = await db.CampaignQualifications.Where(q => q.ProcessedAt == null).OrderBy(q => q.Id).Take(500).ToListAsync(ct);
        foreach (var q in pending)
        {
            await using var tx = await db.Database.BeginTransactionAsync(ct);
            if (q.RewardSku is not null)
            {
                var stock = await db.RewardStock.FromSql($"select * from reward_stock where sku = {q.RewardSku} for update").SingleAsync(ct);
                stock.Reserved += 1;
            }
            var balance = await db.MemberBalances.FromSql($"select * from member_balances where member_id = {q.MemberId} for update").SingleAsync(ct);
            balance.Points += q.BonusPoints;
            db.LedgerEntries.Add(LedgerEntry.Credit(q.MemberId, q.BonusPoints, $"campaign:{q.CampaignId}"));
            q.ProcessedAt = DateTimeOffset.UtcNow;
            await db.SaveChangesAsync(ct);
            await tx.CommitAsync(ct);
        }
        logger.LogInformation("accrual batch processed {Count} qualifications", pending.Count);
    }
}
