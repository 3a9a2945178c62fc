-- The SpeakEasy sample: table-storage style entities keyed by (PartitionKey, RowKey) with a
-- Timestamp. Speakers live in partition speakers, events in partition Events, locations in
-- partition locations. Speaker images are blobs in the speakers container, referenced by URL.
-- One schema for SQLite and PostgreSQL: the placeholders in double braces are the spellings they
-- do not share, rendered per dialect by DemoSchema (Sources/StrataDemo/DemoSchema.swift).

CREATE TABLE "Speakers" (
    "PartitionKey" VARCHAR(64) NOT NULL,
    "RowKey"       VARCHAR(64) NOT NULL,
    "Timestamp"    {{timestamp}} NOT NULL DEFAULT {{now}},
    "Name"         VARCHAR(100) NOT NULL,
    "Title"        VARCHAR(100),
    "Bio"          TEXT,
    "ImageUrl"     VARCHAR(255),
    PRIMARY KEY ("PartitionKey", "RowKey"),
    UNIQUE ("RowKey")
);

CREATE TABLE "Events" (
    "PartitionKey"     VARCHAR(64) NOT NULL,
    "RowKey"           VARCHAR(64) NOT NULL,
    "Timestamp"        {{timestamp}} NOT NULL DEFAULT {{now}},
    "EventDate"        {{timestamp}} NOT NULL,
    "EventName"        VARCHAR(100) NOT NULL,
    "EventLocation"    VARCHAR(100),
    "EventDescription" TEXT,
    "SpeakerKey"       VARCHAR(64) NOT NULL REFERENCES "Speakers"("RowKey"),
    "SpeakerName"      VARCHAR(100),
    PRIMARY KEY ("PartitionKey", "RowKey")
);

CREATE INDEX "IX_Events_SpeakerKey" ON "Events" ("SpeakerKey");

CREATE TABLE "Locations" (
    "PartitionKey" VARCHAR(64) NOT NULL,
    "RowKey"       VARCHAR(64) NOT NULL,
    "Timestamp"    {{timestamp}} NOT NULL DEFAULT {{now}},
    "City"         VARCHAR(100) NOT NULL,
    "State"        VARCHAR(2) NOT NULL,
    PRIMARY KEY ("PartitionKey", "RowKey")
);
