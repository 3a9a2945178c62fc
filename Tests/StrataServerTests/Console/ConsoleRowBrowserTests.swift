import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
import Testing

extension ConsoleBrowserTests {
    /// The data screens beyond paging: the filter builder, the column chooser, the request copied as
    /// URL/curl/Swift, drill-down along navigation properties, a row's form with errors at the field
    /// (the browser's own checks and the server's `target`), an edit that meets someone else's
    /// (yours against theirs, then overwrite), insert and delete, and the screens at a phone's width.
    @Suite("Rows: build, choose, drill down, edit, conflict, insert, delete")
    struct RowScreens {
        @Test("Filter builder, columns, copy, drill-down, field errors, an ETag conflict overwritten, insert and delete, phone width", arguments: Backend.allCases)
        func rows(_ backend: Backend) async throws {
            try await ConsolePage.with(backend) { page in
                let browser = page.browser
                let admin = basic(TestAccounts.admin)
                try await page.signIn(TestAccounts.admin)

                // By keyboard: type a filter and press Enter; Tab moves to Apply, which shows its focus.
                try await page.open("#/s/cardealer/Person")
                try await page.waitLoaded("Person's first page")
                try await page.expectLabelled("the table")
                try await browser.click("input[name=filter]")
                try await page.resetLoaded()
                try await browser.press("lastName eq 'Samson'" + WebDriver.enter)
                try await page.waitLoaded("the filter typed and entered", and: "location.hash.includes('filter=')")
                #expect(try await browser.run("return document.querySelectorAll('tbody tr').length") as? Int ?? 0 >= 1)
                try await browser.click("input[name=filter]")
                try await browser.press(WebDriver.tab)
                #expect(try await browser.run("return document.activeElement.textContent === 'Apply' && getComputedStyle(document.activeElement).outlineStyle === 'solid'") as? Bool == true,
                        "Tab from the filter reaches Apply with a visible focus ring")

                // The builder writes a condition into the filter; a value of the wrong type is refused at its field.
                try await page.open("#/s/cardealer/Person")
                try await page.waitLoaded("Person's first page")
                try await browser.click("details.builder summary")
                try await browser.run("document.querySelector('select[name=builder-column]').value = 'lastName'; document.querySelector('select[name=builder-operator]').value = 'startswith'")
                try await browser.type("Sam", into: "input[name=builder-value]")
                try await page.resetLoaded()
                try await browser.click("details.builder button[type=submit]")
                try await page.waitLoaded("the built filter", and: "location.hash.includes('filter=')")
                let expected = try #require(Int(try await page.client.get("/cardealer/Person/$count?$filter=startswith(lastName,'Sam')", headers: admin).text))
                #expect(try await browser.run("return document.querySelector('input[name=filter]').value") as? String == "startswith(lastName,'Sam')")
                #expect(try await browser.run("return document.querySelectorAll('tbody tr').length") as? Int == expected)
                try await browser.click("details.builder summary")
                try await browser.run("document.querySelector('select[name=builder-column]').value = 'personID'; document.querySelector('select[name=builder-operator]').value = 'eq'")
                try await browser.type("abc", into: "input[name=builder-value]")
                try await browser.click("details.builder button[type=submit]")
                #expect(try await browser.text("#builder-error").contains("is a number"))

                // The column chooser keeps the key and the chosen columns.
                try await browser.click("details.builder:nth-of-type(2) summary")
                try await browser.run("document.querySelectorAll('input[name=column]').forEach(box => { if (!box.disabled) box.checked = box.value === 'firstName' })")
                try await page.resetLoaded()
                try await browser.click("form.columns button[type=submit]")
                try await page.waitLoaded("the chosen columns", and: "location.hash.includes('select=')")
                #expect(try await browser.run("return [...document.querySelectorAll('thead th')].map(th => th.textContent)") as? [String] == ["personID", "firstName"])

                // The request as URL, curl and Swift; the token is never in them.
                try await browser.click("details.copy summary")
                let swift = try await browser.text("pre[data-copy=Swift]")
                #expect(swift.contains(#".filter(parsing: "startswith(lastName,'Sam')")"#) && swift.contains(#".select("personID", "firstName")"#), "\(swift)")
                let curl = try await browser.text("pre[data-copy=curl]")
                let token = try await browser.run("return JSON.parse(sessionStorage.getItem('strata.console.session')).token") as? String ?? "?"
                #expect(curl.contains("$STRATA_TOKEN") && !curl.contains(token) && curl.contains("/cardealer/Person?"), "\(curl)")
                try await page.shot("rows-builder")

                // Drill-down: a person's cars (PersonCar), one of them, then its Car.
                let owned = try #require(Int(try await page.client.get("/cardealer/Person(1)/PersonCar/$count", headers: admin).text))
                try await page.open("#/s/cardealer/Person/1")
                try await page.waitLoaded("Person(1)")
                try await page.resetLoaded()
                try await browser.click("section.related a")
                try await page.waitLoaded("Person(1)'s PersonCar", and: "location.hash.endsWith('/1/PersonCar')")
                #expect(try await browser.run("return document.querySelectorAll('tbody tr').length") as? Int == owned)
                try await page.shot("rows-drilldown")
                try await page.resetLoaded()
                try await browser.click("tbody tr a")
                try await page.waitLoaded("a PersonCar", and: "/#\\/s\\/cardealer\\/PersonCar\\/\\d+$/.test(location.hash)")
                try await page.resetLoaded()
                try await browser.click("section.related a[href='#']")
                try await page.waitLoaded("its Car", and: "/#\\/s\\/cardealer\\/Car\\/\\d+$/.test(location.hash)")
                #expect(try await browser.text("main h1").hasPrefix("Car("))

                // Errors at the field: the browser's check (length) and the server's (target).
                try await page.open("#/s/cardealer/Person/3")
                try await page.waitLoaded("Person(3)")
                try await browser.type(String(repeating: "x", count: 60), into: "input[name=firstName]")
                try await browser.click("form.row button[type=submit]")
                #expect(try await browser.text("#field-firstName-error").contains("At most 50 characters"))
                try await browser.type("Frank", into: "input[name=firstName]")
                try await browser.type("not a date", into: "input[name=createDate]")
                try await browser.click("form.row button[type=submit]")
                try await browser.wait(until: "return document.querySelector('#field-createDate-error').textContent.length > 0", "the server's error at createDate")
                #expect(try await browser.text("#field-createDate-error").contains("createDate"))
                #expect(try await browser.run("return document.querySelector('input[name=createDate]').getAttribute('aria-invalid')") as? String == "true")
                try await page.expectLabelled("a row's form")
                try await page.shot("row-field-error")

                // Decimals travel as text (IEEE754Compatible), so 30.10 stays 30.10.
                try await page.open("#/s/cardealer/Maintenance/1")
                try await page.waitLoaded("Maintenance(1)")
                try await browser.type("30.10", into: "input[name=price]")
                try await page.resetLoaded()
                try await browser.click("form.row button[type=submit]")
                try await page.waitLoaded("the saved price", and: "(document.querySelector('main .status') || {}).textContent === 'Saved.'")
                #expect(try await browser.run("return document.querySelector('input[name=price]').value") as? String == "30.10")

                // An edit that meets someone else's: yours against theirs, then overwrite.
                try await page.open("#/s/cardealer/Person/2")
                try await page.waitLoaded("Person(2)")
                let opened = try await browser.run("return document.querySelector('input[name=firstName]').value") as? String ?? ""
                try await browser.type("Mine", into: "input[name=firstName]")
                let theirs = try await page.client.execute(uri: "/cardealer/Person(2)", method: .patch, headers: admin + [.contentType: "application/json"],
                                                           body: ByteBuffer(string: #"{"firstName":"Theirs"}"#))
                #expect(theirs.status == .noContent || theirs.status == .ok, "\(theirs.status)")
                try await page.resetLoaded()
                try await browser.click("form.row button[type=submit]")
                try await page.waitLoaded("the conflict", and: "!!document.querySelector('.conflict table')")
                let diff = try await browser.run("return [...document.querySelectorAll('.conflict tbody tr')].map(tr => [...tr.children].map(c => c.textContent))") as? [[String]] ?? []
                #expect(diff.contains(["firstName", opened, "Mine", "Theirs"]), "\(diff)")
                try await page.shot("row-conflict")
                try await browser.click("button[name=overwrite]")
                try await browser.wait(until: "return (document.querySelector('main .status') || {}).textContent === 'Saved over their change.'", "the overwrite")
                let stored = try await page.client.get("/cardealer/Person(2)?$select=firstName", headers: admin).text
                #expect(stored.contains(#""Mine""#), "\(stored)")

                // Insert, then delete after a second confirmation.
                try await page.open("#/s/cardealer/Person/new")
                try await page.waitLoaded("the new row's form")
                try await browser.type("Nina", into: "input[name=firstName]")
                try await browser.type("Neu", into: "input[name=lastName]")
                try await page.resetLoaded()
                try await browser.click("form.row button[type=submit]")
                try await page.waitLoaded("the created row", and: "/#\\/s\\/cardealer\\/Person\\/\\d+$/.test(location.hash)")
                #expect(try await page.client.get("/cardealer/Person/$count?$filter=lastName%20eq%20'Neu'", headers: admin).text == "1")
                try await browser.click("button[name=delete]")
                try await page.resetLoaded()
                try await browser.click("button[name=confirm-delete]")
                try await page.waitLoaded("the set after deleting", and: "location.hash === '#/s/cardealer/Person'")
                #expect(try await page.client.get("/cardealer/Person/$count?$filter=lastName%20eq%20'Neu'", headers: admin).text == "0")

                // A reader sees the same screens without the ways to change anything.
                try await page.signIn(TestAccounts.reader)
                try await page.open("#/s/cardealer/Person")
                try await page.waitLoaded("Person for a reader")
                #expect(try await browser.run("return !document.querySelector('.titlebar a.button') && !!document.querySelector('tbody tr')") as? Bool == true)
                try await page.open("#/s/cardealer/Person/2")
                try await page.waitLoaded("Person(2) for a reader")
                #expect(try await browser.text("main").contains("You may read this row, not change it."))
                #expect(try await browser.run("return !document.querySelector('form.row button') && [...document.querySelectorAll('form.row input')].every(i => i.disabled)") as? Bool == true)
                try await page.shot("row-reader")

                // A phone's width: nothing wider than the screen, the table scrolls in its own box.
                try await browser.resize(width: 390, height: 844)
                for (fragment, name) in [("#/s/cardealer/Person", "phone-table"), ("#/s/cardealer/Person/2", "phone-row")] {
                    try await page.open(fragment)
                    try await page.waitLoaded(name)
                    #expect(try await browser.run("return document.documentElement.scrollWidth <= window.innerWidth") as? Bool == true, "\(name) is wider than the phone")
                    try await page.shot(name)
                }
                try await page.expectCleanLog()
            }
        }
    }
}
