namespace Mercato.CatalogIndexer;

public static class ProductDocumentMapper
{
    /// <summary>Seller attributes are indexed as-is under attributes.* so that facets work for any category.</summary>
    public static ProductDocument From(ProductRow row) => new(
        ProductId: row.Id.ToString(),
        SellerId: row.SellerId.ToString(),
        Title: row.Title,
        Description: row.Description,
        CategoryPath: row.CategoryPath,
        Price: row.PriceCents / 100m,
        Currency: row.Currency,
        InStock: row.Stock > 0,
        UpdatedAt: row.UpdatedAt,
        Attributes: row.Attributes.ToDictionary(a => a.Name.Trim(), a => a.Value));
}
