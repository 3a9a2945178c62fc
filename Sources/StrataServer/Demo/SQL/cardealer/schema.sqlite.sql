-- CarDealer (seed 000): people, their cars, and the maintenance done on those cars.
-- SQLite dialect. Keep in step with schema.postgres.sql (same tables, columns, nullability,
-- lengths, keys and foreign keys). Data lives in data.sql, written by Scripts/generate-demo-data.py.

CREATE TABLE "Person" (
    "personID"   INTEGER PRIMARY KEY AUTOINCREMENT,
    "firstName"  VARCHAR(50) NOT NULL,
    "lastName"   VARCHAR(50) NOT NULL,
    "ssn"        VARCHAR(11),
    "createDate" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now'))
);

CREATE TABLE "Car" (
    "carID"           INTEGER PRIMARY KEY AUTOINCREMENT,
    "make"            VARCHAR(50) NOT NULL,
    "model"           VARCHAR(50) NOT NULL,
    "manufactureDate" DATETIME,
    "createStamp"     DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now'))
);

CREATE TABLE "PersonCar" (
    "personCarID" INTEGER PRIMARY KEY AUTOINCREMENT,
    "personID"    INTEGER NOT NULL REFERENCES "Person"("personID"),
    "carID"       INTEGER NOT NULL REFERENCES "Car"("carID"),
    "createStamp" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now'))
);

CREATE INDEX "IX_PersonCar_personID" ON "PersonCar" ("personID");
CREATE INDEX "IX_PersonCar_carID" ON "PersonCar" ("carID");

CREATE TABLE "Maintenance" (
    "maintenanceID" INTEGER PRIMARY KEY AUTOINCREMENT,
    "description"   VARCHAR(200) NOT NULL,
    "price"         DECIMAL(10,2),
    "createStamp"   DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now'))
);

CREATE TABLE "PersonCarMaintenance" (
    "personCarMaintenanceID" INTEGER PRIMARY KEY AUTOINCREMENT,
    "personCarID"            INTEGER NOT NULL REFERENCES "PersonCar"("personCarID"),
    "maintenanceID"          INTEGER NOT NULL REFERENCES "Maintenance"("maintenanceID"),
    "serviceDate"            DATETIME NOT NULL,
    "mileage"                INTEGER,
    "cost"                   DECIMAL(10,2),
    "notes"                  TEXT,
    "createStamp"            DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now'))
);

CREATE INDEX "IX_PersonCarMaintenance_personCarID" ON "PersonCarMaintenance" ("personCarID");
CREATE INDEX "IX_PersonCarMaintenance_maintenanceID" ON "PersonCarMaintenance" ("maintenanceID");
