-- A V shape per symbol: a starting row, prices falling, then rising.
SELECT sym, start_ts, bottom_ts, end_ts
FROM ticks MATCH_RECOGNIZE (
  PARTITION BY sym
  ORDER BY ts
  MEASURES FIRST(ts) AS start_ts, LAST(DOWN.ts) AS bottom_ts, LAST(ts) AS end_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
)
ORDER BY sym, start_ts
