namespace PatientPortal.Pages;

public class HostModel(ITenantSettingsClient settings) : PageModel
{
    public Branding Branding { get; private set; } = Branding.Default;

    public async Task OnGetAsync(CancellationToken ct)
    {
        var tenant = HttpContext.GetTenantId();
        Branding = await settings.GetBrandingAsync(tenant, ct);
        Response.Headers.CacheControl = "public, max-age=300";
    }
}
