namespace Northreel.Subtitles;

public static class VttNormalizer
{
    /// <summary>Cue timings must be hh:mm:ss.ttt for Tizen and webOS players.</summary>
    public static string NormalizeTimestamp(string ts)
    {
        var parts = ts.Split(':');
        var normalized = parts.Length == 2 ? "00:" + ts : ts;
        // Some vendors send a comma as the millisecond separator (SRT habit).
        return normalized.Replace(',', '.');
    }
}
