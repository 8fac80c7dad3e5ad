using FellowOakDicom;
using Google.Cloud.Storage.V1;
using Meridale.StudyIndexer.Model;

namespace Meridale.StudyIndexer.Dicom;

/// <summary>
/// Reads the header of every instance of a study from the bucket and builds
/// the series/instance index the viewer needs (geometry, ordering, window presets).
/// Pixel data is never read: the loader stops at (7FE0,0010).
/// </summary>
public sealed class StudyMetadataLoader
{
    private readonly StorageClient _storage;
    private readonly string _bucket;
    private readonly ILogger<StudyMetadataLoader> _log;

    public StudyMetadataLoader(StorageClient storage, IConfiguration config, ILogger<StudyMetadataLoader> log)
    {
        _storage = storage;
        _bucket = config["Storage:Bucket"] ?? throw new InvalidOperationException("Storage:Bucket is not set");
        _log = log;
    }

    public async Task<StudyIndex> LoadAsync(StudyRef study, CancellationToken ct)
    {
        var prefix = $"studies/{study.StudyInstanceUid}/";
        var headers = new List<DicomDataset>(capacity: study.ExpectedInstances);

        await foreach (var obj in _storage.ListObjectsAsync(_bucket, prefix).WithCancellation(ct))
        {
            using var stream = new MemoryStream();
            await _storage.DownloadObjectAsync(obj, stream, new DownloadObjectOptions { Range = new(0, 256 * 1024) }, ct);
            stream.Position = 0;
            var file = await DicomFile.OpenAsync(stream, FileReadOption.SkipLargeTags);
            headers.Add(file.Dataset);
        }

        var series = headers
            .GroupBy(h => h.GetSingleValue<string>(DicomTag.SeriesInstanceUID))
            .Select(g => SeriesIndex.From(g.OrderBy(h => h.GetSingleValueOrDefault(DicomTag.InstanceNumber, 0)).ToList()))
            .ToList();

        _log.LogInformation("Loaded {Instances} headers in {Series} series for study {Study} ({Modality})",
            headers.Count, series.Count, study.StudyInstanceUid, study.Modality);

        return new StudyIndex(study, series);
    }
}
