using Amazon.S3;
using Amazon.S3.Model;
using Microsoft.Extensions.Logging;

namespace Northreel.Subtitles;

/// <summary>Reads WebVTT tracks from the subtitles bucket.</summary>
public sealed class TrackStore(IAmazonS3 s3, TrackCatalog catalog, ILogger<TrackStore> logger)
{
    private const string Bucket = "northreel-media-subtitles-prod";

    public async Task<string?> GetVttAsync(string titleId, string trackId, CancellationToken ct)
    {
        var track = await catalog.GetAsync(titleId, trackId, ct);
        if (track is null)
        {
            return null;
        }
        try
        {
            using var resp = await s3.GetObjectAsync(Bucket, track.ObjectKey, ct);
            using var reader = new StreamReader(resp.ResponseStream);
            return await reader.ReadToEndAsync(ct);
        }
        catch (AmazonS3Exception ex)
        {
            // A missing subtitle track must not break playback: the player hides the track.
            logger.LogWarning(ex, "Subtitle track {TrackId} of {TitleId} unavailable ({ErrorCode}), serving 502",
                trackId, titleId, ex.ErrorCode);
            throw new TrackUnavailableException(trackId, ex);
        }
    }
}
