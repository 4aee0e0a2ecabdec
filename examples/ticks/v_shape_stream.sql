-- The V shapes of v_shape.sql as a stream takes them: SELECT * around the recognition alone.
SELECT * FROM ticks MATCH_RECOGNIZE (
  PARTITION BY sym
  ORDER BY ts
  MEASURES FIRST(ts) AS start_ts, LAST(DOWN.ts) AS bottom_ts, LAST(ts) AS end_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
)
