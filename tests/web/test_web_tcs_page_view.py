"""The TCS page's company rows are typed view values (issue 21), the same facts the scenario sets.

Oracle: Example #1's scenario text (seed: "One platoon with three steps left remains alive ...
the other three platoons are in the Dead Pile"), not the fold.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from rallypoint.core.campaign import Campaign
from rallypoint.rulesets.tcs.front.web import Company, Counter, context


def test_the_first_company_row_holds_typed_counters(example1: Campaign) -> None:
    page = context(example1)
    first = page["formations"]["ErP112"][0]
    assert isinstance(first, Company)
    assert (first.id, first.name, first.sheet) == ("1/ErP112", "1/ErP 112th", None)
    assert first.counters == (
        Counter("1/ErP112-1", "map", 3, 5, "23.15"),
        Counter("1/ErP112-d-1", "dead", 0, 5, None),
        Counter("1/ErP112-d-2", "dead", 0, 5, None),
        Counter("1/ErP112-d-3", "dead", 0, 5, None),
    )
    # The loss form offers the counters on the map, each once, by id.
    assert "1/ErP112-1" in page["loss_counters"]
    assert "1/ErP112-d-1" not in page["loss_counters"]


def test_the_page_draws_each_counter_in_its_pile(client: TestClient) -> None:
    cid = client.post("/api/campaigns", json={"scenario": "example1_tolvajarvi",
                                              "name": "ex1"}).json()["id"]
    row = client.get(f"/c/{cid}").text.split('<tr id="company-1/ErP112">')[1].split("</tr>")[0]
    cells = row.split("<td")
    # Columns: company, on the map, Dead Pile, Very Dead Pile, FO pile.
    assert "1/ErP112-1" in cells[2] and "@23.15" in cells[2]
    assert [c.count('class="pill"') for c in cells[3:6]] == [3, 0, 0]
    assert "1/ErP112-d-2" in cells[3]
