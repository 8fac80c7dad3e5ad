using Microsoft.EntityFrameworkCore;
using Points.Api.Data;

namespace Points.Api.Redemptions;

public sealed class RedeemService(PointsDbContext db, ILogger<RedeemService> logger)
{
    public async Task<Redemption> RedeemAsync(Guid memberId, string rewardSku, CancellationToken ct)
    {
        await using var tx = await db.Database.BeginTransactionAsync(ct);

        // 1. debit the member
        var balance = await db.MemberBalances.FromSql($"select * from member_balances where member_id = {memberId} for update").SingleAsync(ct);
        var reward = await db.Rewards.SingleAsync(r => r.Sku == rewardSku, ct);
        if (balance.Points < reward.CostPoints)
        {
            throw new InsufficientPointsException(memberId, reward.CostPoints, balance.Points);
        }
        balance.Points -= reward.CostPoints;

        // 2. take one unit of stock
        var stock = await db.RewardStock.FromSql($"select * from reward_stock where sku = {rewardSku} for update").SingleAsync(ct);
        stock.Available -= 1;

        var redemption = new Redemption(memberId, rewardSku, reward.CostPoints);
        db.Redemptions.Add(redemption);
        db.LedgerEntries.Add(LedgerEntry.Debit(memberId, reward.CostPoints, $"redeem:{rewardSku}"));
        await db.SaveChangesAsync(ct);
        await tx.CommitAsync(ct);
        logger.LogInformation("member {MemberId} redeemed {Sku}", memberId, rewardSku);
        return redemption;
    }
}
