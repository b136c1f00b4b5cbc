-- A small hand-runnable slice of the example data: deals 1-3 exactly as DealSeeder writes them
-- (io.warmgate.example.deal.DealSeeder seeds any number, e.g. 10,000, in batched mutations).
-- Apply after schema.sql, e.g.:
--   gcloud spanner databases execute-sql deals --instance=test-instance --sql="$(cat seed.sql)"
-- or statement by statement with any Spanner client. Statements are separated by ';'.

INSERT INTO Advertisers (AdvertiserId, Name, Domain) VALUES
  ('adv-0001', 'Advertiser 1', 'advertiser-1.example.com'),
  ('adv-0002', 'Advertiser 2', 'advertiser-2.example.com'),
  ('adv-0003', 'Advertiser 3', 'advertiser-3.example.com');

INSERT INTO Deals (DealId, AdvertiserId, Name, Status, FloorPriceMicros, Currency, StartTime, EndTime, UpdatedAt) VALUES
  ('deal-000001', 'adv-0001', 'Deal 1', 'ACTIVE', 110000, 'EUR',
   TIMESTAMP '2026-01-01T00:01:00Z', TIMESTAMP '2026-01-31T00:01:00Z', PENDING_COMMIT_TIMESTAMP()),
  ('deal-000002', 'adv-0002', 'Deal 2', 'ACTIVE', 120000, 'GBP',
   TIMESTAMP '2026-01-01T00:02:00Z', TIMESTAMP '2026-01-31T00:02:00Z', PENDING_COMMIT_TIMESTAMP()),
  ('deal-000003', 'adv-0003', 'Deal 3', 'PAUSED', 130000, 'USD',
   TIMESTAMP '2026-01-01T00:03:00Z', TIMESTAMP '2026-01-31T00:03:00Z', PENDING_COMMIT_TIMESTAMP());

INSERT INTO DealAds (DealId, AdId, CreativeUrl, Width, Height, Weight) VALUES
  ('deal-000001', 'ad-000001-1', 'https://cdn.example.com/creatives/deal-000001/1.png', 160, 600, 10),
  ('deal-000002', 'ad-000002-1', 'https://cdn.example.com/creatives/deal-000002/1.png', 320, 50, 10),
  ('deal-000002', 'ad-000002-2', 'https://cdn.example.com/creatives/deal-000002/2.png', 300, 250, 20),
  ('deal-000003', 'ad-000003-1', 'https://cdn.example.com/creatives/deal-000003/1.png', 300, 250, 10),
  ('deal-000003', 'ad-000003-2', 'https://cdn.example.com/creatives/deal-000003/2.png', 728, 90, 20),
  ('deal-000003', 'ad-000003-3', 'https://cdn.example.com/creatives/deal-000003/3.png', 160, 600, 30);

INSERT INTO DealTargeting (DealId, Dimension, Value, `Exclude`) VALUES
  ('deal-000001', 'geo', 'DE', FALSE),
  ('deal-000002', 'geo', 'GB', FALSE),
  ('deal-000002', 'device', 'ctv', TRUE),
  ('deal-000003', 'geo', 'FR', FALSE),
  ('deal-000003', 'device', 'mobile', FALSE),
  ('deal-000003', 'segment', 'seg-3', FALSE);
