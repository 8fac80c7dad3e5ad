namespace Seatmap.Api.Holds;

public sealed class HoldService(NpgsqlDataSource db, ILogger<HoldService> logger)
{
    // Holds expire after 8 minutes unless checkout confirms them.
    public static readonly TimeSpan HoldTtl = TimeSpan.FromMinutes(8);

    public async Task<Hold?> TryHoldAsync(string eventId, IReadOnlyList<string> seatIds, string sessionId, CancellationToken ct)
    {
        await using var cmd = db.CreateCommand(
            "update seats set held_by = $1, held_until = now() + $2 where event_id = $3 and seat_id = any($4) and (held_until is null or held_until < now()) returning seat_id");
        cmd.Parameters.AddWithValue(sessionId);
        cmd.Parameters.AddWithValue(HoldTtl);
        cmd.Parameters.AddWithValue(eventId);
        cmd.Parameters.AddWithValue(seatIds.ToArray());
        var held = new List<string>();
        await using var reader = await cmd.ExecuteReaderAsync(ct);
        while (await reader.ReadAsync(ct)) held.Add(reader.GetString(0));
        if (held.Count != seatIds.Count)
        {
            logger.LogInformation("partial hold {Held}/{Requested} for {EventId}", held.Count, seatIds.Count, eventId);
        }
        return held.Count == 0 ? null : new Hold(eventId, held, DateTimeOffset.UtcNow + HoldTtl);
    }
}
