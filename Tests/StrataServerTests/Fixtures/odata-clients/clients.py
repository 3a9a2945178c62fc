"""Drives a running strata with two real OData V4 clients and prints what they saw, as JSON.

    clients.py python-odata|odatapy BASE_URL USER PASSWORD SERVICE...

The Swift test (ODataV4ClientTests) compares every value with its own reads. Errors are not
caught: a client that fails exits non-zero with its traceback, which the test shows.
"""
import json
import sys


def python_odata(base, user, password, services):
    import requests
    from odata import ODataService

    session = requests.Session()
    session.auth = (user, password)
    seen = {"sets": {}}
    for name in services:
        service = ODataService(f"{base}/{name}/", reflect_entities=True, quiet_progress=True, session=session)
        seen["sets"][name] = sorted(service.entities.keys())
        if name != "cardealer":
            continue
        Person, Car, PersonCar = (service.entities[n] for n in ("Person", "Car", "PersonCar"))
        seen["samson"] = [p.personID for p in service.query(Person).filter(Person.lastName == "Samson")]
        j = service.query(Person).filter(Person.firstName.startswith("J"))
        seen["jDescending"] = [p.personID for p in j.order_by(Person.personID.desc()).limit(2)]
        seen["jCount"] = j.count()
        seen["firstPersonCars"] = sorted(
            [pc.personCarID, pc.Car.make] for pc in service.query(PersonCar).expand(PersonCar.Car).filter(PersonCar.personID == 1))
        car = Car()
        car.make, car.model = "PyOData", "Reflected"
        service.save(car)
        seen["created"] = {"carID": car.carID, "make": car.make, "hasCreateStamp": car.createStamp is not None}
        car.model = "Changed"
        service.save(car)
        again = service.query(Car).filter(Car.carID == car.carID).first()
        seen["updated"] = [again.make, again.model]
        service.delete(car)
        seen["afterDelete"] = service.query(Car).filter(Car.make == "PyOData").count()
    return seen


def odatapy(base, user, password, services):
    from odatapy.client import EdmEnabledODataClient
    from odatapy.client.auth import BasicAuth
    from odatapy.client.filters import Field, and_
    from odatapy.client.transport import HttpxTransport

    transport = HttpxTransport(auth=BasicAuth(user, password))
    seen = {"sets": {}}
    for name in services:
        client = EdmEnabledODataClient(f"{base}/{name}", transport)
        document = client.get_service_document()
        seen["sets"][name] = sorted(getattr(entry, "name", entry) for entry in document.entity_sets)
        if name != "cardealer":
            continue
        uri = (client.entity_set_uri("Person")
               .filter(and_(Field("personID").gt(10), Field("firstName").startswith("J")))
               .select("personID", "firstName").orderby("personID").top(3))
        seen["filtered"] = [[e.get_value("personID"), e.get_value("firstName")] for e in client.get_entity_set(uri).entities]
        seen["count"] = client.get_count(client.entity_set_uri("Person"))
        # Every person, page after page: the server's page size is smaller than the set.
        seen["allIDs"] = [e.get_value("personID") for e in client.iter_entities(client.entity_set_uri("Person").orderby("personID"))]
        expanded = client.get_entity(client.entity_uri("Person", 1).expand("PersonCar"))
        seen["expandedCars"] = sorted(link.get_value("carID") for link in expanded.get_navigation_link("PersonCar").inline_entity_set.entities)
        created = client.create_entity("Car", {"make": "Olingo", "model": "Py"})
        car_id = created.get_value("carID")
        seen["created"] = {"carID": car_id, "make": created.get_value("make"), "etag": bool(created.etag)}
        client.update_entity(client.entity_uri("Car", car_id), {"model": "Patched"})
        seen["updated"] = client.get_entity(client.entity_uri("Car", car_id)).get_value("model")
        client.delete_entity(client.entity_uri("Car", car_id))
        seen["afterDelete"] = client.get_count(client.entity_set_uri("Car").filter(Field("make").eq("Olingo")))
        # $batch in both of V4's formats: a change set that creates a car and changes it through its
        # Content-ID, then a read; and one whose second change fails, so that neither is kept.
        for form in ("multipart", "json"):
            batch = client.batch(format=form, continue_on_error=True)
            changes = batch.add_changeset()
            changes.add("POST", "Car", body=json.dumps({"make": "Batch-" + form, "model": "One"}).encode(),
                        headers={"Content-Type": "application/json"}, content_id="1")
            changes.add("PATCH", "$1", body=json.dumps({"model": "Two"}).encode(), headers={"Content-Type": "application/json"},
                        content_id="2")
            batch.add_retrieve(client.entity_set_uri("Car").filter(Field("make").eq("Batch-" + form)).select("make", "model"),
                               content_id="3")
            failing = batch.add_changeset()
            failing.add("POST", "Car", body=json.dumps({"make": "Never-" + form, "model": "X"}).encode(),
                        headers={"Content-Type": "application/json"}, content_id="4")
            failing.add("PATCH", "Car(999999)", body=json.dumps({"model": "Y"}).encode(), headers={"Content-Type": "application/json"},
                        content_id="5")
            result = client.execute_batch(batch)
            read = result.by_content_id("3")
            seen["batch-" + form] = {
                "statuses": {r.content_id: r.status_code for r in result.responses},
                "read": [[e.get_value("make"), e.get_value("model")] for e in read.entity_collection().entities],
                "never": client.get_count(client.entity_set_uri("Car").filter(Field("make").eq("Never-" + form))),
            }
    return seen


if __name__ == "__main__":
    which, base, user, password, *services = sys.argv[1:]
    run = {"python-odata": python_odata, "odatapy": odatapy}[which]
    print(json.dumps(run(base, user, password, services)))
