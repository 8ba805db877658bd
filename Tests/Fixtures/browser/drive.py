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
"""Drives headless Chromium through Kiln's pages as a person would (BrowserTests).

Signs in at /login with a member's token, opens a running integration's page, watches its
live log grow (the page keeping to its end), scrolls back up (the page then staying there while
lines arrive), presses "Cancel", and prints what it saw as one JSON object: the log's lines at
load and later, where the page was, the page after the cancel, and every message Chromium's
console had (a Content-Security-Policy violation is one). The window is short, so that the log
runs past its end.

Usage: drive.py BASE_URL TOKEN BOT NUMBER
"""

import json
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By

from kiln_browser import chromium, sign_in


def text(driver, by, name):
    """The element's text; the page may be reloading (the live log reloads it when the log ends).

    Found during a reload, the element may be missing, stale, or (Chromium's words for a node of
    the document being replaced) "Node with given id does not belong to the document": all are
    WebDriverException, and all mean ask again.
    """
    for _ in range(50):
        try:
            return driver.find_element(by, name).text
        except WebDriverException:
            time.sleep(0.1)
    return ""


AT_END = "return window.scrollY > 0 && window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40"


def lines(driver):
    return text(driver, By.ID, "log").count("\n")


def main():
    base, token, bot, number = sys.argv[1:5]
    driver = chromium(1000, 300, console=True)
    seen = {}
    try:
        seen["afterSignIn"] = sign_in(driver, base, token)

        driver.get("%s/bots/%s/integrations/%s" % (base, bot, number))
        time.sleep(0.5)
        seen["linesAtLoad"] = lines(driver)
        deadline = time.time() + 15
        while time.time() < deadline and lines(driver) < seen["linesAtLoad"] + 3:
            time.sleep(0.2)
        seen["linesLater"] = lines(driver)
        seen["pageURL"] = driver.current_url
        seen["followedToEnd"] = driver.execute_script(AT_END)

        # The reader scrolls up; while three more lines arrive, the page stays where they put it.
        driver.execute_script("window.scrollTo(0, 0)")
        before = lines(driver)
        deadline = time.time() + 15
        while time.time() < deadline and lines(driver) < before + 3:
            time.sleep(0.2)
        seen["scrolledUpLines"] = lines(driver) - before
        seen["scrollAfterLines"] = driver.execute_script("return window.scrollY")

        driver.find_element(By.CSS_SELECTOR, "form.act button").click()
        deadline = time.time() + 15
        while time.time() < deadline and "canceled" not in text(driver, By.TAG_NAME, "body"):
            time.sleep(0.3)
            driver.refresh()
        seen["afterCancel"] = driver.current_url
        seen["canceledShown"] = "canceled" in text(driver, By.TAG_NAME, "body")
        seen["console"] = [entry["message"] for entry in driver.get_log("browser")]
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
