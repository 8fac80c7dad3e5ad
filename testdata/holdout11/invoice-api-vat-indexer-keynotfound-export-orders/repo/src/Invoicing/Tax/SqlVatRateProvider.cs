using Dapper;
using Microsoft.Data.SqlClient;

namespace Bergwerk.Invoicing.Tax;

public sealed class SqlVatRateProvider(SqlConnection db) : IVatRateProvider
{
    public IReadOnlyDictionary<string, decimal> Load() =>
        db.Query<(string Country, decimal Rate)>(
                "SELECT country_code, standard_rate FROM tax.vat_rates WHERE valid_to IS NULL")
            .ToDictionary(r => r.Country, r => r.Rate);
}
