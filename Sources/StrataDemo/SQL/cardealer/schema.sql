-- The CarDealer sample: people, their cars, and the maintenance done on those cars.
-- One schema for SQLite and PostgreSQL: the placeholders in double braces are the spellings they
-- do not share, rendered per dialect by DemoSchema (Sources/StrataDemo/DemoSchema.swift).
-- Data lives in data.sql, written by Scripts/generate-demo-data.py.

CREATE TABLE "Person" (
    "personID"   {{identity}},
    "firstName"  VARCHAR(50) NOT NULL,
    "lastName"   VARCHAR(50) NOT NULL,
    "ssn"        VARCHAR(11),
    "createDate" {{timestamp}} NOT NULL DEFAULT {{now}}
);

CREATE TABLE "Car" (
    "carID"           {{identity}},
    "make"            VARCHAR(50) NOT NULL,
    "model"           VARCHAR(50) NOT NULL,
    "manufactureDate" {{timestamp}},
    "createStamp"     {{timestamp}} NOT NULL DEFAULT {{now}}
);

CREATE TABLE "PersonCar" (
    "personCarID" {{identity}},
    "personID"    INTEGER NOT NULL REFERENCES "Person"("personID"),
    "carID"       INTEGER NOT NULL REFERENCES "Car"("carID"),
    "createStamp" {{timestamp}} NOT NULL DEFAULT {{now}}
);

CREATE INDEX "IX_PersonCar_personID" ON "PersonCar" ("personID");
CREATE INDEX "IX_PersonCar_carID" ON "PersonCar" ("carID");

CREATE TABLE "Maintenance" (
    "maintenanceID" {{identity}},
    "description"   VARCHAR(200) NOT NULL,
    "price"         DECIMAL(10,2),
    "createStamp"   {{timestamp}} NOT NULL DEFAULT {{now}}
);

CREATE TABLE "PersonCarMaintenance" (
    "personCarMaintenanceID" {{identity}},
    "personCarID"            INTEGER NOT NULL REFERENCES "PersonCar"("personCarID"),
    "maintenanceID"          INTEGER NOT NULL REFERENCES "Maintenance"("maintenanceID"),
    "serviceDate"            {{timestamp}} NOT NULL,
    "mileage"                INTEGER,
    "cost"                   DECIMAL(10,2),
    "notes"                  TEXT,
    "createStamp"            {{timestamp}} NOT NULL DEFAULT {{now}}
);

CREATE INDEX "IX_PersonCarMaintenance_personCarID" ON "PersonCarMaintenance" ("personCarID");
CREATE INDEX "IX_PersonCarMaintenance_maintenanceID" ON "PersonCarMaintenance" ("maintenanceID");
