#!/usr/bin/env python3
##===----------------------------------------------------------------------===##
##
## This source file is part of the Kiln open source project
##
## Copyright (c) 2026 the Kiln project authors
## Licensed under Apache License v2.0
##
## See LICENSE for license information
##
## SPDX-License-Identifier: Apache-2.0
##
##===----------------------------------------------------------------------===##
"""Checks Kiln's pages for accessibility in headless Chromium (BrowserTests).

Runs axe-core (as axe-selenium-python ships it) on each page, first as a reader without a token,
then signed in with a member's token (the header's "Signed in as", the pages' forms), and keeps
the serious and critical violations; then tries the keyboard: the first Tab reaches the skip
link, which shows itself and leads to the content, and a focused link has a visible outline; and
how far each page reaches past a 400 px window (a phone). Prints what it found as one JSON object.

Usage: accessibility.py BASE_URL TOKEN PATH...
"""

import json
import sys
import time

from axe_selenium_python import Axe

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from kiln_browser import chromium, sideways, sign_in

FOCUSED = "var e = document.activeElement; var s = getComputedStyle(e); " \
    "return [e.className, e.getAttribute('href'), e.getBoundingClientRect().width, s.outlineStyle, s.outlineWidth]"


def violations(driver):
    """The page's serious and critical axe-core violations: rule, impact and the elements."""
    axe = Axe(driver)
    axe.inject()
    found = axe.run()["violations"]
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]}
            for v in found if v["impact"] in ("serious", "critical")]


def main():
    base, token, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    driver = chromium(1280, 800)
    seen = {"anonymous": {}, "member": {}}
    try:
        for path in paths + ["/login"]:
            driver.get(base + path)
            seen["anonymous"][path] = violations(driver)

        # The keyboard, on the front page: Tab once, then follow the skip link.
        driver.get(base + "/")
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
        seen["firstTab"] = driver.execute_script(FOCUSED)
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        time.sleep(0.2)
        seen["afterSkip"] = driver.current_url
        driver.get(base + "/")
        for _ in range(3):
            driver.switch_to.active_element.send_keys(Keys.TAB)
        seen["thirdTab"] = driver.execute_script(FOCUSED)

        sign_in(driver, base, token)
        for path in paths:
            driver.get(base + path)
            seen["member"][path] = violations(driver)
        seen["signedIn"] = driver.find_element(By.CSS_SELECTOR, "header .account").text

        seen["sideways"] = sideways(driver, base, paths)
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
