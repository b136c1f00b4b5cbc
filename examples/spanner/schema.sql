-- warmgate example origin: ad deals in Cloud Spanner.
-- A Deal is read with one multi-table query: Deals ⋈ Advertisers, with its ad candidates (DealAds)
-- and targeting rules (DealTargeting) gathered per deal. Child tables are interleaved so one deal's
-- rows sit together. Statements are separated by ';' (one DDL statement each).
-- `Exclude` is quoted because EXCLUDE is a reserved word in GoogleSQL; queries must quote it too.

CREATE TABLE Advertisers (
  AdvertiserId STRING(36) NOT NULL,
  Name         STRING(MAX) NOT NULL,
  Domain       STRING(255),
) PRIMARY KEY (AdvertiserId);

CREATE TABLE Deals (
  DealId           STRING(64) NOT NULL,
  AdvertiserId     STRING(36) NOT NULL,
  Name             STRING(MAX) NOT NULL,
  Status           STRING(16) NOT NULL,
  FloorPriceMicros INT64 NOT NULL,
  Currency         STRING(3) NOT NULL,
  StartTime        TIMESTAMP,
  EndTime          TIMESTAMP,
  UpdatedAt        TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
  CONSTRAINT FK_DealsAdvertiser FOREIGN KEY (AdvertiserId) REFERENCES Advertisers (AdvertiserId),
  CONSTRAINT CK_DealsStatus CHECK (Status IN ('ACTIVE', 'PAUSED', 'ENDED')),
) PRIMARY KEY (DealId);

CREATE TABLE DealAds (
  DealId      STRING(64) NOT NULL,
  AdId        STRING(64) NOT NULL,
  CreativeUrl STRING(MAX) NOT NULL,
  Width       INT64 NOT NULL,
  Height      INT64 NOT NULL,
  Weight      INT64 NOT NULL,
) PRIMARY KEY (DealId, AdId),
  INTERLEAVE IN PARENT Deals ON DELETE CASCADE;

CREATE TABLE DealTargeting (
  DealId    STRING(64) NOT NULL,
  Dimension STRING(32) NOT NULL,
  Value     STRING(MAX) NOT NULL,
  `Exclude` BOOL NOT NULL,
) PRIMARY KEY (DealId, Dimension, Value),
  INTERLEAVE IN PARENT Deals ON DELETE CASCADE;
