namespace Tillpoint.Statements.Pdf;

public static class Footer
{
    public const string Text = "Tillpoint Ltd · Registered in England and Wales · VAT GB 123 4567 89";
}
