SELECT * FROM ticks
MATCH_RECOGNIZE (
  PARTITION BY sym
  ORDER BY ts
  MEASURES
    a.ts AS a,
    b.ts AS b,
    c.ts AS c
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (a b c)
  DEFINE
    b AS a.sym = b.sym AND b.price < a.price AND b.ts > a.ts,
    c AS b.sym = c.sym AND c.price > b.price AND c.ts > b.ts AND c.ts - a.ts <= 2
)
