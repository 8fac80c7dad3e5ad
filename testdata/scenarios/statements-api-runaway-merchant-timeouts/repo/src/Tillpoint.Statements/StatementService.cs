using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.EntityFrameworkCore;
using Tillpoint.Statements.Data;

namespace Tillpoint.Statements;

public sealed class StatementService(FinanceDbContext db)
{
    public async Task<Statement> MonthAsync(string merchantId, DateOnly month, CancellationToken ct)
    {
        var from = month.ToDateTime(TimeOnly.MinValue, DateTimeKind.Utc);
        var to = from.AddMonths(1);
        var txs = await db.Transactions
            .Where(t => t.MerchantId == merchantId && t.CreatedAt >= from && t.CreatedAt < to)
            .OrderBy(t => t.CreatedAt)
            .ToListAsync(ct);
        return Statement.From(merchantId, month, txs);
    }
}
