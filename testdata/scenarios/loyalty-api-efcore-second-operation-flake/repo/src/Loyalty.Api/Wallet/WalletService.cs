using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Loyalty.Api.Data;
using Microsoft.EntityFrameworkCore;

namespace Loyalty.Api.Wallet;

public sealed class WalletService
{
    private readonly LoyaltyDbContext _db;

    public WalletService(LoyaltyDbContext db) => _db = db;

    public async Task<WalletDto> GetWalletAsync(Guid memberId, CancellationToken ct)
    {
        var pointsTask = _db.PointEntries.Where(p => p.MemberId == memberId).SumAsync(p => p.Points, ct);
        var vouchersTask = _db.Vouchers.Where(v => v.MemberId == memberId && v.RedeemedAt == null).ToListAsync(ct);
        await Task.WhenAll(pointsTask, vouchersTask);
        return new WalletDto(memberId, pointsTask.Result, vouchersTask.Result.Select(VoucherDto.From).ToList());
    }
}
