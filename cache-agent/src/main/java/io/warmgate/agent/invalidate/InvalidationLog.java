package io.warmgate.agent.invalidate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.agent.l2.KeySpace;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The stream {@code {wg:<cache>}:invalidations}: one entry per invalidation call, fields
 * {@code ids} (a JSON array of the ids), {@code at} (epoch millis it was issued) and {@code seq},
 * its number in the counter {@code {wg:<cache>}:invalidations:seq}, which a script increments
 * with each append (both keys share the cache's hash tag). It keeps about the last
 * {@value #MAX_LENGTH} entries. Numbers let a reader see what it missed: a gap between two
 * entries it read, entries trimmed before it read them, or a counter lower than the last number
 * it read (a Valkey restarted without persistence, a failover that lost the newest appends).
 * It then cannot know which ids it missed and must drop all it holds.
 */
final class InvalidationLog {

  /** Entries kept ({@code XADD MAXLEN ~}): minutes of invalidations at thousands a second. */
  static final long MAX_LENGTH = 100_000;
  /** The most ids in one entry; larger calls are split. */
  static final int MAX_IDS_PER_ENTRY = 1_000;

  /** KEYS = stream, counter; ARGV = max length, ids (JSON), at. Returns {entry id, number}. */
  private static final String APPEND = """
      local seq = redis.call('INCR', KEYS[2])
      local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*',
        'ids', ARGV[2], 'at', ARGV[3], 'seq', tostring(seq))
      return {id, seq}
      """;

  /**
   * KEYS = stream, counter. Returns {counter, number of the oldest entry kept, id of the newest
   * entry kept}, read at one instant.
   */
  private static final String STATE = """
      local seq = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
      local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
      local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
      local firstSeq = 0
      if first[1] then
        local fields = first[1][2]
        for i = 1, #fields, 2 do
          if fields[i] == 'seq' then firstSeq = tonumber(fields[i + 1]) or 0 end
        end
      end
      local lastId = '0-0'
      if last[1] then lastId = last[1][1] end
      return {seq, firstSeq, lastId}
      """;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<String>> IDS = new TypeReference<>() {};

  /**
   * One read entry: its id, the ids it invalidates (null when its fields cannot be read: written
   * by something else, so its reader cannot know what it invalidates), when it was issued (epoch
   * ms, 0 if unknown) and its number (0 if unknown).
   */
  record Entry(StreamId id, List<String> ids, long atMillis, long seq) {}

  /**
   * What a reader needs to know whether it missed entries.
   *
   * @param seq the counter: the number of the newest append, 0 when absent
   * @param firstSeq the number of the oldest entry kept, or 0 when the stream is empty or absent
   * @param lastId the id of the newest entry kept, {@link StreamId#ZERO} when none
   */
  record State(long seq, long firstSeq, StreamId lastId) {

    /**
     * Whether appends after the one numbered {@code lastSeq} can no longer be read: they were
     * trimmed, or the counter is below {@code lastSeq} (its appends were lost).
     */
    boolean lostAfter(long lastSeq) {
      if (seq < lastSeq) {
        return true;
      }
      return firstSeq == 0 ? seq > lastSeq : firstSeq > lastSeq + 1;
    }
  }

  private final String key;
  private final String seqKey;

  InvalidationLog(KeySpace keys) {
    this.key = keys.invalidationsKey();
    this.seqKey = keys.invalidationsSeqKey();
  }

  String key() {
    return key;
  }

  /** Appends one entry per {@value #MAX_IDS_PER_ENTRY} ids; returns the last entry's number. */
  long append(RedisClusterCommands<String, String> valkey, List<String> ids, long atMillis) {
    long last = 0;
    for (int from = 0; from < ids.size(); from += MAX_IDS_PER_ENTRY) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + MAX_IDS_PER_ENTRY));
      List<Object> reply = valkey.eval(APPEND, ScriptOutputType.MULTI, new String[] {key, seqKey},
          Long.toString(MAX_LENGTH), encode(chunk), Long.toString(atMillis));
      last = (Long) reply.get(1);
    }
    return last;
  }

  /** Reads up to {@code count} entries after {@code after}, waiting up to {@code block} for the first. */
  List<Entry> readAfter(RedisClusterCommands<String, String> valkey, StreamId after,
      Duration block, int count) {
    List<StreamMessage<String, String>> messages = valkey.xread(
        XReadArgs.Builder.block(block).count(count),
        XReadArgs.StreamOffset.from(key, after.toString()));
    return messages == null ? List.of() : messages.stream().map(InvalidationLog::entry).toList();
  }

  /** Reads the counter and the stream's two ends at one instant (one script). */
  State state(RedisClusterCommands<String, String> valkey) {
    List<Object> reply = valkey.eval(STATE, ScriptOutputType.MULTI, new String[] {key, seqKey});
    return new State((Long) reply.get(0), (Long) reply.get(1),
        StreamId.parse(String.valueOf(reply.get(2))));
  }

  static String encode(Collection<String> ids) {
    try {
      return JSON.writeValueAsString(ids);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode ids as JSON", e);
    }
  }

  private static Entry entry(StreamMessage<String, String> message) {
    StreamId id = StreamId.parse(message.getId());
    Map<String, String> body = message.getBody();
    long seq = parseOrZero(body.get("seq"));
    List<String> ids;
    try {
      ids = JSON.readValue(body.get("ids"), IDS);
    } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
      ids = null;
    }
    return new Entry(id, ids, parseOrZero(body.get("at")), seq);
  }

  private static long parseOrZero(String number) {
    try {
      return number == null ? 0 : Long.parseLong(number);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
