-- The Deal read: one round trip returns every requested deal with its advertiser, ad candidates and
-- targeting rules. Parameter @ids: ARRAY<STRING>. Deals that do not exist are simply absent.
SELECT
  d.DealId,
  d.Name,
  d.Status,
  d.FloorPriceMicros,
  d.Currency,
  d.StartTime,
  d.EndTime,
  d.UpdatedAt,
  a.AdvertiserId,
  a.Name AS AdvertiserName,
  a.Domain AS AdvertiserDomain,
  ARRAY(
    SELECT AS STRUCT da.AdId, da.CreativeUrl, da.Width, da.Height, da.Weight
    FROM DealAds AS da
    WHERE da.DealId = d.DealId
    ORDER BY da.AdId
  ) AS Ads,
  ARRAY(
    SELECT AS STRUCT t.Dimension, t.Value, t.`Exclude`
    FROM DealTargeting AS t
    WHERE t.DealId = d.DealId
    ORDER BY t.Dimension, t.Value
  ) AS Targeting
FROM Deals AS d
JOIN Advertisers AS a ON a.AdvertiserId = d.AdvertiserId
WHERE d.DealId IN UNNEST(@ids)
